import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { numericTransformer } from '../common/numeric-transformer';
import { PowerGroupEntity } from '../power-groups/power-group.entity';

export const CONNECTION_TYPES = ['MQTT', 'Webhook'] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

@Entity('sun_sources')
export class SunSourceEntity {
  /** Chosen by the service before insert: the encrypted credentials are bound to it. */
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid')
  userId!: string;

  @Column('uuid', { nullable: true })
  powerGroupId!: string | null;

  /** Read-only join for `powerGroupName`; writes go through `powerGroupId`. */
  @ManyToOne(() => PowerGroupEntity, { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'power_group_id' })
  powerGroup?: PowerGroupEntity | null;

  @Column('varchar', { length: 200 })
  name!: string;

  @Column('varchar', { length: 2000, nullable: true })
  description!: string | null;

  @Column('varchar', { length: 500, nullable: true })
  iconUrl!: string | null;

  @Column('text')
  connectionType!: ConnectionType;

  @Column('double precision', { nullable: true })
  latitude!: number | null;

  @Column('double precision', { nullable: true })
  longitude!: number | null;

  @Column('boolean')
  isActive!: boolean;

  @Column('double precision', { nullable: true })
  installedCapacityWatts!: number | null;

  /** Degrees from horizontal, as the owner gave it; null with `arrayAzimuth` when not given. */
  @Column('double precision', { nullable: true })
  arrayTilt!: number | null;

  /** Degrees clockwise from north (180 south), as the owner gave it. */
  @Column('double precision', { nullable: true })
  arrayAzimuth!: number | null;

  @Column('char', { length: 3 })
  currency!: string;

  @Column('numeric', { precision: 14, scale: 2, nullable: true, transformer: numericTransformer })
  systemCost!: number | null;

  @Column('numeric', { precision: 14, scale: 2, nullable: true, transformer: numericTransformer })
  maintenanceCostPerYear!: number | null;

  @Column('timestamptz', { nullable: true })
  installationDate!: Date | null;

  @Column('text', { nullable: true })
  mqttApiKeyEncrypted!: string | null;

  @Column('text', { nullable: true })
  webhookSecretEncrypted!: string | null;

  /** Checks a device's key without opening it (`SecretBox.digest`); null for keys set before it existed. */
  @Column('bytea', { nullable: true })
  mqttApiKeyDigest!: Buffer | null;

  @Column('bytea', { nullable: true })
  webhookSecretDigest!: Buffer | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
