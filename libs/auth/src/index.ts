export * from './auth.decorators';
export * from './auth.module';
export * from './authenticated-user';
export * from './roles.guard';
export * from './session.constants';
export * from './session.guard';
export * from './session.middleware';
export * from './session.service';
