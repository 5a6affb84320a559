import { PowerGroupRow } from './power-group.repository';

/** A Power Group as its owner sees it. */
export interface PowerGroupView {
  id: string;
  name: string;
  description: string | null;
  logoUrl: string | null;
  sunSourceCount: number;
  createdAt: string;
  updatedAt: string;
}

export function toPowerGroupView(row: PowerGroupRow): PowerGroupView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    logoUrl: row.logoUrl,
    sunSourceCount: row.sunSourceCount,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
