import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PowerGroupEntity } from './power-group.entity';

export type PowerGroupRow = PowerGroupEntity & { sunSourceCount: number };

export type PowerGroupFields = Pick<PowerGroupEntity, 'name' | 'description' | 'logoUrl'>;

const SELECT_WITH_COUNT = `
  SELECT g.id, g.user_id AS "userId", g.name, g.description, g.logo_url AS "logoUrl",
         g.created_at AS "createdAt", g.updated_at AS "updatedAt",
         (SELECT count(*)::int FROM sun_sources s WHERE s.power_group_id = g.id) AS "sunSourceCount"
    FROM power_groups g`;

@Injectable()
export class PowerGroupRepository {
  constructor(@InjectRepository(PowerGroupEntity) private readonly groups: Repository<PowerGroupEntity>) {}

  listOwned(ownerId: string): Promise<PowerGroupRow[]> {
    return this.groups.query(`${SELECT_WITH_COUNT} WHERE g.user_id = $1 ORDER BY g.created_at, g.id`, [
      ownerId,
    ]);
  }

  async findOwned(ownerId: string, id: string): Promise<PowerGroupRow | null> {
    const rows: PowerGroupRow[] = await this.groups.query(
      `${SELECT_WITH_COUNT} WHERE g.user_id = $1 AND g.id = $2`,
      [ownerId, id],
    );
    return rows[0] ?? null;
  }

  async existsOwned(ownerId: string, id: string): Promise<boolean> {
    return this.groups.existsBy({ userId: ownerId, id });
  }

  async insert(ownerId: string, fields: PowerGroupFields): Promise<string> {
    const saved = await this.groups.save(this.groups.create({ ...fields, userId: ownerId }));
    return saved.id;
  }

  async update(ownerId: string, id: string, changes: Partial<PowerGroupFields>): Promise<boolean> {
    if (Object.keys(changes).length === 0) return this.existsOwned(ownerId, id);
    const result = await this.groups.update({ id, userId: ownerId }, changes);
    return (result.affected ?? 0) > 0;
  }

  /** Its sources stay, ungrouped: the foreign key sets their `power_group_id` to null. */
  async delete(ownerId: string, id: string): Promise<boolean> {
    const result = await this.groups.delete({ id, userId: ownerId });
    return (result.affected ?? 0) > 0;
  }
}
