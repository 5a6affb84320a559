import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountCache } from './account-cache';
import { UnverifiedAccountCleanup } from './unverified-account-cleanup';
import { UserEntity } from './user.entity';
import { UserRepository } from './user.repository';

/** The scheduler's share of the accounts: their cleanup, without mail, images or sessions. */
@Module({
  imports: [TypeOrmModule.forFeature([UserEntity])],
  providers: [UserRepository, AccountCache, UnverifiedAccountCleanup],
  exports: [UnverifiedAccountCleanup],
})
export class AccountCleanupModule {}
