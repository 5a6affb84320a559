import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity('user_settings')
export class UserSettingEntity {
  @PrimaryColumn('uuid')
  userId!: string;

  @PrimaryColumn('smallint')
  settingType!: number;

  @Column('text')
  value!: '0' | '1';

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
