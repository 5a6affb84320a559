import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '@solar/config';
import { dataSourceOptions } from './data-source-options';
import { ensureDatabase } from './ensure-database';
import { migrate } from './migrate';
import { PoolMetrics } from './pool-metrics';
import { PreparedQueries } from './prepared-queries';

/**
 * The PostgreSQL connection of an app. Before the data source is handed to any module it
 * creates the database if missing and applies pending migrations (unless `DB_MIGRATE=false`).
 * Migrations run on a connection of their own, without the pool's statement_timeout: rewriting
 * a large table may rightly take longer.
 */
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [PreparedQueries, PoolMetrics],
      exports: [PreparedQueries],
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...dataSourceOptions(config.databaseUrl, {
              statementTimeoutSeconds: config.limits.statementTimeoutSeconds,
            }),
            autoLoadEntities: true,
          }),
          dataSourceFactory: async (options) => {
            if (config.dbMigrate) {
              const applied = await migrate(config.databaseUrl);
              if (applied.length > 0) new Logger('Database').log(`applied migrations: ${applied.join(', ')}`);
            } else {
              await ensureDatabase(config.databaseUrl);
            }
            return new DataSource(options!).initialize();
          },
        }),
      ],
    };
  }
}
