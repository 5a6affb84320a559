import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { EncodedJson, JsonArrayStream } from '../../libs/database/src/json-rows';
import type { SqlRunner } from '../../libs/database/src/prepared-queries';
import type {
  TelemetryQueryRepository,
  TimeRange,
} from '../../libs/telemetry/src/query/telemetry-query.repository';

const QUERY_REPOSITORY = 'libs/telemetry/src/query/telemetry-query.repository.ts';
const EXPORT_REPOSITORY = 'libs/telemetry/src/export/telemetry-export.repository.ts';

/** One SQL statement with its parameters, exactly as the api sends it to PostgreSQL. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * The statements of the api's telemetry repository, captured by running its methods against a
 * stand-in DataSource that records instead of querying. So the floor is the api's own SQL, and
 * it follows any change to the repository (an index hint, a rollup table) without editing here.
 * `appRoot` is the checkout whose api is measured (`--app-root`: a patched copy).
 */
export class CapturedStatements {
  private captured: Statement[] = [];
  private readonly repository: TelemetryQueryRepository;

  constructor(appRoot: string) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require(join(appRoot, QUERY_REPOSITORY)) as {
      TelemetryQueryRepository: new (dataSource: DataSource, reads: SqlRunner) => TelemetryQueryRepository;
    };
    const record = (sql: string, params: unknown[] = []) => {
      this.captured.push({ sql, params });
    };
    const recorder: SqlRunner = {
      query: (sql, params) => {
        record(sql, params);
        return Promise.resolve([]);
      },
      queryJson: (sql, params) => {
        record(sql, params);
        return Promise.resolve(Buffer.from('[]') as EncodedJson);
      },
      streamJson: (sql, params) => {
        record(sql, params);
        const rows = new JsonArrayStream();
        rows.finish();
        return Promise.resolve(rows);
      },
    };
    // Both ways the repository reaches PostgreSQL: its DataSource and its prepared reads.
    this.repository = new module.TelemetryQueryRepository(recorder as unknown as DataSource, recorder);
  }

  private async capture(
    run: (repository: TelemetryQueryRepository) => Promise<unknown>,
  ): Promise<Statement[]> {
    this.captured = [];
    await run(this.repository);
    return this.captured;
  }

  latest(sourceId: string): Promise<Statement[]> {
    return this.capture((repository) => repository.latest(sourceId));
  }

  history(sourceId: string, range: TimeRange, limit: number): Promise<Statement[]> {
    return this.capture((repository) => repository.history(sourceId, range, limit));
  }

  hourly(sourceId: string, range: TimeRange): Promise<Statement[]> {
    return this.capture((repository) => repository.hourly(sourceId, range));
  }

  /** Up to 60 days: the days as they are sent. */
  dailySummaries(sourceId: string, range: TimeRange): Promise<Statement[]> {
    return this.capture((repository) => repository.dailySummaries(sourceId, range));
  }

  /** Beyond 60 days: the days the weeks are computed from. */
  daily(sourceId: string, range: TimeRange): Promise<Statement[]> {
    return this.capture((repository) => repository.daily(sourceId, range));
  }

  /** The report's four statements, which the api runs concurrently (Promise.all). */
  report(sourceId: string, range: TimeRange): Promise<Statement[]> {
    return this.capture((repository) =>
      Promise.all([
        repository.summary(sourceId, range),
        repository.daily(sourceId, range),
        repository.hourly(sourceId, range),
        repository.operatingModes(sourceId, range),
      ]),
    );
  }

  latestOfOwned(ownerId: string): Promise<Statement[]> {
    return this.capture((repository) => repository.latestOfOwned(ownerId));
  }

  latestByIdOfOwned(ownerId: string, ids: string[]): Promise<Statement[]> {
    return this.capture((repository) => repository.latestByIdOfOwned(ownerId, ids));
  }
}

/**
 * The export's cursor statement (and its session settings), captured from the export repository
 * with a stand-in pool. Undefined when the repository is not there or has changed shape: the
 * export floor is then left out.
 */
export async function captureExportStatement(
  appRoot: string,
  range: {
    sunSourceId: string;
    from: Date;
    to: Date;
    limit: number;
  },
): Promise<{ setup: string[]; rows: Statement } | undefined> {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { TelemetryExportRepository } = require(join(appRoot, EXPORT_REPOSITORY)) as {
      TelemetryExportRepository: new (dataSource: DataSource) => { open(range: unknown): Promise<unknown> };
    };
    const setup: string[] = [];
    let rows: Statement | undefined;
    const client = Object.assign(new EventEmitter(), {
      query: (query: unknown, params?: unknown[]) => {
        if (typeof query === 'string') {
          if (!params) setup.push(query);
          return Promise.resolve({ rows: [], rowCount: 0 });
        }
        const cursor = (query as { cursor?: { text?: string; values?: unknown[] } }).cursor;
        if (cursor?.text) rows = { sql: cursor.text, params: cursor.values ?? [] };
        return query;
      },
      release: () => undefined,
    });
    const dataSource = { driver: { master: { connect: () => Promise.resolve(client) } } };
    await new TelemetryExportRepository(dataSource as unknown as DataSource).open(range);
    return rows ? { setup, rows } : undefined;
  } catch {
    return undefined;
  }
}
