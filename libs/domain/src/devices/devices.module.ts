import { Module } from '@nestjs/common';
import { SunSourcesModule } from '../sun-sources/sun-sources.module';
import { DeviceAuthService } from './device-auth.service';

@Module({ imports: [SunSourcesModule], providers: [DeviceAuthService], exports: [DeviceAuthService] })
export class DevicesModule {}
