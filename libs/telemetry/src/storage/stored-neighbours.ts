import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** What the stored rows say about a timestamp: nothing within 10 s, a row at it, or one near it. */
export type StoredNeighbour = 'none' | 'same' | 'near';

/** Questions asked together in one statement, at most. */
export const MAX_NEIGHBOUR_BATCH = 1000;

// One statement for a group of questions; each probe is a range scan of the primary key
// (sun_source_id, ts). The group's own bounds ($3, $4) are plain values, so the planner keeps only
// the partitions that can hold them: with the bounds taken from the probed rows alone, it would
// plan every monthly partition, hundreds of them, for each statement.
const NEIGHBOURS_SQL = `
  SELECT q.i::int AS i,
         EXISTS (
           SELECT 1 FROM telemetry t
            WHERE t.sun_source_id = q.sun_source_id AND t.ts = q.ts AND t.ts > $3::timestamptz AND t.ts < $4::timestamptz) AS same
    FROM unnest($1::uuid[], $2::timestamptz[]) WITH ORDINALITY AS q(sun_source_id, ts, i)
   WHERE EXISTS (
           SELECT 1 FROM telemetry t
            WHERE t.sun_source_id = q.sun_source_id
              AND t.ts > q.ts - interval '10 seconds'
              AND t.ts < q.ts + interval '10 seconds'
              AND t.ts > $3::timestamptz AND t.ts < $4::timestamptz)`;
const NEIGHBOUR_MS = 10_000;

interface Question {
  sunSourceId: string;
  ts: Date;
  resolve: (answer: StoredNeighbour) => void;
  reject: (error: unknown) => void;
}

/**
 * "Is a row of this source stored less than 10 s from this timestamp?", for messages older than
 * the throttle set remembers. Questions that arrive while a statement is under way wait and go
 * together in the next one, so a flood of old data costs one statement per round trip, not one
 * per message.
 */
@Injectable()
export class StoredNeighbours {
  private waiting: Question[] = [];
  private running = false;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  of(sunSourceId: string, ts: Date): Promise<StoredNeighbour> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ sunSourceId, ts, resolve, reject });
      if (this.running) return;
      this.running = true;
      // Questions of the same turn of the event loop (a burst of requests) share the first statement.
      setImmediate(() => void this.answerWaiting());
    });
  }

  private async answerWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_NEIGHBOUR_BATCH);
      // One statement per month of device time, so each reads one or two partitions.
      const months = new Map<string, Question[]>();
      for (const question of batch) {
        const month = question.ts.toISOString().slice(0, 7);
        // Appended in place: copying the group for each question is quadratic in the batch.
        const group = months.get(month);
        if (group) group.push(question);
        else months.set(month, [question]);
      }
      await Promise.all([...months.values()].map((group) => this.answer(group)));
    }
    this.running = false;
  }

  private async answer(group: Question[]): Promise<void> {
    const times = group.map((question) => question.ts.getTime());
    try {
      const rows: Array<{ i: number; same: boolean }> = await this.dataSource.query(NEIGHBOURS_SQL, [
        group.map((question) => question.sunSourceId),
        group.map((question) => question.ts.toISOString()),
        new Date(Math.min(...times) - NEIGHBOUR_MS).toISOString(),
        new Date(Math.max(...times) + NEIGHBOUR_MS).toISOString(),
      ]);
      const found = new Map(rows.map((row) => [row.i, row.same ? 'same' : 'near'] as const));
      group.forEach((question, index) => question.resolve(found.get(index + 1) ?? 'none'));
    } catch (error) {
      for (const question of group) question.reject(error);
    }
  }
}
