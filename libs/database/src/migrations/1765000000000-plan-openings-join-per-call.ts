import { MigrationInterface, QueryRunner } from 'typeorm';
import { refreshOpeningsTrigger } from './1764950000000-roll-up-energy-increments';

/**
 * The openings trigger plans its UPDATE branch at every call. PL/pgSQL keeps a static query's
 * plan for the life of a connection, and a plan over transition tables is made for the row
 * counts they had when it was made: after a first statement that updated one hour, every later
 * one joined its old and new hours by a nested loop, n² comparisons (a batch of 1,000 appended
 * points spent 290 ms in that join alone). Planned at each call, the join is hashed.
 */
export class PlanOpeningsJoinPerCall1765000000000 implements MigrationInterface {
  name = 'PlanOpeningsJoinPerCall1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(refreshOpeningsTrigger('per call'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(refreshOpeningsTrigger('once'));
  }
}
