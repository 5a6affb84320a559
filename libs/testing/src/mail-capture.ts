import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  to: string[];
  raw: string;
}

/** An SMTP server on loopback that keeps every message, so tests can read the codes sent. */
export class MailCapture {
  readonly messages: CapturedMail[] = [];
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        this.messages.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });

  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  messagesTo(email: string): CapturedMail[] {
    return this.messages.filter((message) => message.to.includes(email.toLowerCase()));
  }

  /** The code of the latest message to `email`, waiting up to `timeoutMs` for one to arrive. */
  async latestCode(email: string, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const latest = this.messagesTo(email).at(-1);
      const code = latest && /verification code is (\d{6})/.exec(latest.raw)?.[1];
      if (code) return code;
      if (Date.now() > deadline) throw new Error(`no verification code mailed to ${email}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
