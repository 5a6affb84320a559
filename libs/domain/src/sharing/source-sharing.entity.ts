import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity('source_sharing')
export class SourceSharingEntity {
  @PrimaryColumn('uuid')
  sunSourceId!: string;

  @Column('boolean')
  isEnabled!: boolean;

  @Column('boolean')
  shareMonitor!: boolean;

  @Column('boolean')
  shareWeather!: boolean;

  @Column('boolean')
  shareForecast!: boolean;

  @Column('boolean')
  shareReturns!: boolean;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
