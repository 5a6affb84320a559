import { Module } from '@nestjs/common';
import { UsersModule } from '@solar/domain';
import { RolesGuard } from './roles.guard';
import { SessionCache } from './session-cache';
import { SessionGuard } from './session.guard';
import { SessionService } from './session.service';

@Module({
  imports: [UsersModule],
  providers: [SessionGuard, RolesGuard, SessionService, SessionCache],
  exports: [SessionGuard, RolesGuard, SessionService, SessionCache, UsersModule],
})
export class AuthModule {}
