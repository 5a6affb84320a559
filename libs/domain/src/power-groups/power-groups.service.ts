import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@solar/core';
import { PowerGroupView, toPowerGroupView } from './power-group-view';
import { PowerGroupFields, PowerGroupRepository } from './power-group.repository';

export const POWER_GROUP_NOT_FOUND = 'Power group not found';

@Injectable()
export class PowerGroupsService {
  constructor(private readonly groups: PowerGroupRepository) {}

  async list(ownerId: string): Promise<PowerGroupView[]> {
    return (await this.groups.listOwned(ownerId)).map(toPowerGroupView);
  }

  async get(ownerId: string, id: string): Promise<PowerGroupView> {
    const group = await this.groups.findOwned(ownerId, id);
    if (!group) throw new NotFoundError(POWER_GROUP_NOT_FOUND);
    return toPowerGroupView(group);
  }

  async create(ownerId: string, fields: PowerGroupFields): Promise<PowerGroupView> {
    return this.get(ownerId, await this.groups.insert(ownerId, fields));
  }

  async update(ownerId: string, id: string, changes: Partial<PowerGroupFields>): Promise<PowerGroupView> {
    if (!(await this.groups.update(ownerId, id, changes))) throw new NotFoundError(POWER_GROUP_NOT_FOUND);
    return this.get(ownerId, id);
  }

  async delete(ownerId: string, id: string): Promise<void> {
    if (!(await this.groups.delete(ownerId, id))) throw new NotFoundError(POWER_GROUP_NOT_FOUND);
  }
}
