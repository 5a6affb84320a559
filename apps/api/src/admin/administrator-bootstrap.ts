import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { UsersAdminService } from '@solar/domain';

/** `ADMIN_EMAIL` + `ADMIN_PASSWORD`: the first administrator exists once the api is up. */
@Injectable()
export class AdministratorBootstrap implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly admin: UsersAdminService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.admin)
      await this.admin.ensureAdministrator(this.config.admin.email, this.config.admin.password);
  }
}
