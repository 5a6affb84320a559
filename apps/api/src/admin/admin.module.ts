import { Module } from '@nestjs/common';
import { AuthModule } from '@solar/auth';
import { AdminController } from './admin.controller';
import { AdministratorBootstrap } from './administrator-bootstrap';

@Module({ imports: [AuthModule], controllers: [AdminController], providers: [AdministratorBootstrap] })
export class AdminModule {}
