import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailModule } from '@solar/mail';
import { ImagesModule } from '../images/images.module';
import { SunSourcesModule } from '../sun-sources/sun-sources.module';
import { AccountCache } from './account-cache';
import { AccountsService } from './accounts.service';
import { CodeSendLimiter } from './code-send-limiter';
import { PasswordHasher } from './password-hasher';
import { UserEntity } from './user.entity';
import { SystemStatsRepository } from './system-stats.repository';
import { UserRepository } from './user.repository';
import { UsersAdminService } from './users-admin.service';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity]), MailModule, ImagesModule, SunSourcesModule],
  providers: [
    UserRepository,
    AccountCache,
    PasswordHasher,
    CodeSendLimiter,
    AccountsService,
    UsersAdminService,
    SystemStatsRepository,
  ],
  exports: [UserRepository, AccountsService, UsersAdminService],
})
export class UsersModule {}
