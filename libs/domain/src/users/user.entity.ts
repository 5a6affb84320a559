import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Role } from './role';

@Entity('users')
export class UserEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Always stored lower-case; see `normalizeEmail`. */
  @Column('text')
  email!: string;

  @Column('text')
  passwordHash!: string;

  @Column('text', { nullable: true })
  firstName!: string | null;

  @Column('text', { nullable: true })
  lastName!: string | null;

  @Column('text', { array: true })
  roles!: Role[];

  @Column('boolean')
  emailVerified!: boolean;

  @Column('text', { nullable: true })
  verificationCodeHash!: string | null;

  @Column('timestamptz', { nullable: true })
  verificationCodeExpiresAt!: Date | null;

  @Column('integer')
  failedAttempts!: number;

  @Column('timestamptz', { nullable: true })
  lockedUntil!: Date | null;

  /** Moves on to end every session of the account (see `SessionAccount`). */
  @Column('integer')
  sessionGeneration!: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
