import { Module } from '@nestjs/common';
import { UsersModule } from '@solar/domain';
import { RolesGuard } from './roles.guard';
import { SessionGuard } from './session.guard';
import { SessionService } from './session.service';

@Module({
  imports: [UsersModule],
  providers: [SessionGuard, RolesGuard, SessionService],
  exports: [SessionGuard, RolesGuard, SessionService, UsersModule],
})
export class AuthModule {}
