import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { APP_CONFIG, AppConfig } from '@solar/config';

/** Sends the service's e-mails through `SMTP_URL`; without it, writes them to the log. */
@Injectable()
export class MailService implements OnApplicationShutdown {
  private readonly logger = new Logger(MailService.name);
  private readonly transport?: Transporter;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    if (config.smtpUrl) this.transport = createTransport(config.smtpUrl);
  }

  async sendVerificationCode(to: string, code: string): Promise<void> {
    const minutes = this.config.verificationCodeTtlMinutes;
    if (!this.transport) {
      // Development mode (README, Configuration: `SMTP_URL`): no SMTP server, so the code goes to the log.
      this.logger.log(`SMTP_URL is unset; verification code for ${to}: ${code}`);
      return;
    }
    await this.transport.sendMail({
      from: this.config.mailFrom,
      to,
      subject: `Your verification code: ${code}`,
      text: `Your verification code is ${code}. It expires in ${minutes} minutes.\n\nIf you did not register, ignore this e-mail.`,
    });
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }
}
