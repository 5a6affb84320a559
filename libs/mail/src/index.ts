export * from './mail.module';
export * from './mail.service';
