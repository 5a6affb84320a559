import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { numericTransformer } from '../common/numeric-transformer';

@Entity('kwh_prices')
export class KwhPriceEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('uuid')
  sunSourceId!: string;

  @Column('numeric', { precision: 12, scale: 6, transformer: numericTransformer })
  pricePerKwh!: number;

  @Column('timestamptz')
  effectiveFrom!: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
