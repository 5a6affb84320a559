import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { Pool, PoolConfig, Query, QueryArrayConfig } from 'pg';
import { DataSource } from 'typeorm';
import { EncodedJson, JsonArrayStream, JsonRowsShape, jsonRowsOf } from './json-rows';

/** The pg pool behind TypeORM's PostgreSQL data source, for what TypeORM cannot do (cursors, named statements). */
export function pgPool(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}

/** Anything that runs a parameterized statement and returns its rows. */
export interface SqlRunner {
  query<T = unknown>(text: string, values?: unknown[]): Promise<T[]>;
  /** The rows of a statement selecting one `jsonObject` (or `jsonMember`) each, as one document. */
  queryJson(text: string, values?: unknown[], shape?: JsonRowsShape): Promise<EncodedJson>;
  /** The rows of a statement selecting one `jsonObject` each, as a JSON array streamed as it arrives. */
  streamJson(text: string, values?: unknown[]): Promise<JsonArrayStream>;
}

const plannedOnceTexts = new Set<string>();

/**
 * Marks a statement to be planned once per connection whatever PostgreSQL's cost model says.
 * For reads whose plan for unknown parameters it estimates far above the plans it makes for the
 * actual ones, so that its plan cache goes on planning them afresh on every run (~0.5 ms over
 * the monthly partitions) though that plan runs as fast: measure before marking one.
 */
export function plannedOnce(text: string): string {
  plannedOnceTexts.add(text);
  return text;
}

/** Connections per process for `plannedOnce` statements, besides the data source's. */
const PLANNED_ONCE_CONNECTIONS = 4;

/**
 * Reads as named prepared statements. PostgreSQL parses each once per connection, and once a
 * generic plan has proved as good as fresh ones it stops planning it: planning a read over the
 * monthly telemetry partitions costs ~0.5 ms, several times what running the latest-point query
 * costs. The name is derived from the text, so one text is one statement wherever it is used;
 * texts must be fixed (values only ever as parameters), or every variant would be kept.
 */
@Injectable()
export class PreparedQueries implements SqlRunner, OnApplicationShutdown {
  private readonly names = new Map<string, string>();
  /** Connections like the data source's on which PostgreSQL always runs a statement's generic plan. */
  private plannedOncePool?: Pool;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    await this.plannedOncePool?.end();
  }

  /** The pool of `plannedOnce` statements, once the first of them has run (for the metrics). */
  get plannedOnceConnections(): Pool | undefined {
    return this.plannedOncePool;
  }

  async query<T = unknown>(text: string, values: unknown[] = []): Promise<T[]> {
    const result = await this.poolFor(text).query({ name: this.nameOf(text), text, values });
    return result.rows as T[];
  }

  /** A statement selecting one `jsonObject` (or `jsonMember`) per row: its rows joined as one document. */
  async queryJson(
    text: string,
    values: unknown[] = [],
    shape: JsonRowsShape = 'array',
  ): Promise<EncodedJson> {
    const result = await this.poolFor(text).query<[string]>({
      name: this.nameOf(text),
      text,
      values,
      rowMode: 'array',
    });
    return jsonRowsOf(result.rows, shape);
  }

  /**
   * As `queryJson`'s array, streamed while PostgreSQL sends it (`JsonArrayStream`). Resolves
   * with the first rows, or with none at the end, so that a statement failing before any row
   * still rejects; a failure after that destroys the stream, which cuts the answer short.
   */
  async streamJson(text: string, values: unknown[] = []): Promise<JsonArrayStream> {
    const client = await this.poolFor(text).connect();
    const rows = new JsonArrayStream();
    const config: QueryArrayConfig = { name: this.nameOf(text), text, values, rowMode: 'array' };
    const query = new Query<[string]>(config);
    return new Promise((resolve, reject) => {
      let started = false;
      const start = () => {
        started = true;
        resolve(rows);
      };
      query.on('row', (row: [string]) => {
        rows.add(row);
        if (!started) start();
      });
      query.on('end', () => {
        client.release();
        rows.finish();
        if (!started) start();
      });
      query.on('error', (error: Error) => {
        // As pg-pool's own query does: the connection is not trusted after a failure.
        client.release(error);
        if (started) rows.destroy(error);
        else reject(error);
      });
      client.query(query);
    });
  }

  /**
   * Opens every connection of the data source's pool and prepares `statements` on each, running
   * them with the values given (which should change nothing). For an app's start, before it
   * reports ready: otherwise the first requests after a deploy each wait for a connection to be
   * opened and the statement to be parsed and planned on it.
   */
  async warmUp(statements: ReadonlyArray<{ text: string; values: unknown[] }>): Promise<void> {
    const pool = pgPool(this.dataSource);
    const size = (pool as unknown as { options: PoolConfig }).options.max ?? 10;
    const clients = await Promise.all(Array.from({ length: size }, () => pool.connect()));
    try {
      await Promise.all(
        clients.map(async (client) => {
          for (const { text, values } of statements)
            await client.query({ name: this.nameOf(text), text, values });
        }),
      );
    } finally {
      for (const client of clients) client.release();
    }
  }

  private poolFor(text: string): Pool {
    const pool = pgPool(this.dataSource);
    if (!plannedOnceTexts.has(text)) return pool;
    if (!this.plannedOncePool) {
      const like = (pool as unknown as { options: PoolConfig }).options;
      this.plannedOncePool = new Pool({
        ...like,
        password: like.password, // not enumerable in pg-pool's copy
        max: PLANNED_ONCE_CONNECTIONS,
        options: [like.options, '-c plan_cache_mode=force_generic_plan'].filter(Boolean).join(' '),
      });
      // pg-pool reports an idle connection's loss (PostgreSQL restarted or unreachable) on the
      // pool: unheard, that error would end the process. The pool replaces the connection.
      this.plannedOncePool.on('error', (error) =>
        new Logger(PreparedQueries.name).warn(`idle PostgreSQL connection lost: ${error.message}`),
      );
    }
    return this.plannedOncePool;
  }

  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (!name) {
      name = `solar_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      this.names.set(text, name);
    }
    return name;
  }
}
