import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '@solar/config';
import { dataSourceOptions } from './data-source-options';
import { ensureDatabase } from './ensure-database';
import { PreparedQueries } from './prepared-queries';
import { runMigrations } from './run-migrations';

/**
 * The PostgreSQL connection of an app. Before the data source is handed to any module it
 * creates the database if missing and applies pending migrations (unless `DB_MIGRATE=false`).
 */
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [PreparedQueries],
      exports: [PreparedQueries],
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({ ...dataSourceOptions(config.databaseUrl), autoLoadEntities: true }),
          dataSourceFactory: async (options) => {
            await ensureDatabase(config.databaseUrl);
            const dataSource = await new DataSource(options!).initialize();
            if (config.dbMigrate) {
              const applied = await runMigrations(dataSource);
              if (applied.length > 0) new Logger('Database').log(`applied migrations: ${applied.join(', ')}`);
            }
            return dataSource;
          },
        }),
      ],
    };
  }
}
