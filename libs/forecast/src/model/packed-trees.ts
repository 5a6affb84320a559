import { endianness } from 'node:os';
import { deflateSync, inflateSync } from 'node:zlib';
import { BoostedModel, RegressionTree } from './gradient-boosting';

/**
 * A boosted model as it is stored: its trees' node arrays packed into one binary.
 *
 * As plain JSON arrays of full-precision numbers, the four models of a source took about a
 * megabyte, and turning that text back into numbers (PostgreSQL's jsonb output, then JSON.parse)
 * was most of what a forecast paid to read its model. Packed, every number is kept bit for bit
 * (thresholds and leaf values as Float64), in about a quarter of the size, and the database
 * holds one string instead of some 170,000 numerics.
 *
 * `nodes` is the base64 of the deflated columns, each running over all trees' nodes in order
 * (little-endian): threshold and value as Float64, then feature, left and right as Int16, then
 * missingLeft as a byte. `treeSizes` says where each tree's nodes start.
 */
export interface PackedBoostedModel {
  featureCount: number;
  base: number;
  /** Nodes in each tree, in order. */
  treeSizes: number[];
  nodes: string;
}

const BYTES_PER_NODE = 8 + 8 + 2 + 2 + 2 + 1;
const INT16_MAX = 0x7fff;
/** Typed arrays read in the platform's byte order; the packed columns are little-endian. */
const BIG_ENDIAN = endianness() === 'BE';

/** Where each column starts in the packed bytes of `count` nodes. */
function columnsOf(count: number) {
  return {
    threshold: 0,
    value: 8 * count,
    feature: 16 * count,
    left: 18 * count,
    right: 20 * count,
    missingLeft: 22 * count,
  };
}

export function packBoostedModel(model: BoostedModel): PackedBoostedModel {
  const treeSizes = model.trees.map((tree) => tree.feature.length);
  const count = treeSizes.reduce((sum, size) => sum + size, 0);
  const bytes = Buffer.alloc(count * BYTES_PER_NODE);
  const at = columnsOf(count);
  let node = 0;
  for (const tree of model.trees) {
    if (tree.feature.length > INT16_MAX || model.featureCount > INT16_MAX)
      throw new RangeError('a tree too large to pack: node indices and features must fit in 16 bits');
    for (let index = 0; index < tree.feature.length; index++, node++) {
      bytes.writeDoubleLE(tree.threshold[index], at.threshold + 8 * node);
      bytes.writeDoubleLE(tree.value[index], at.value + 8 * node);
      bytes.writeInt16LE(tree.feature[index], at.feature + 2 * node);
      bytes.writeInt16LE(tree.left[index], at.left + 2 * node);
      bytes.writeInt16LE(tree.right[index], at.right + 2 * node);
      bytes.writeUInt8(tree.missingLeft[index], at.missingLeft + node);
    }
  }
  return {
    featureCount: model.featureCount,
    base: model.base,
    treeSizes,
    nodes: deflateSync(bytes).toString('base64'),
  };
}

export function isPackedBoostedModel(value: unknown): value is PackedBoostedModel {
  if (typeof value !== 'object' || value === null) return false;
  const model = value as Partial<PackedBoostedModel>;
  return (
    typeof model.featureCount === 'number' &&
    typeof model.base === 'number' &&
    typeof model.nodes === 'string' &&
    Array.isArray(model.treeSizes) &&
    model.treeSizes.every((size) => Number.isInteger(size) && size > 0)
  );
}

/**
 * The model with its trees as typed arrays over the unpacked bytes, or null when the packed nodes
 * are damaged: not deflate data, a length other than the tree sizes ask for, a feature out of
 * range, or a child that does not come after its parent (which also rules out a walk that never
 * ends).
 */
export function unpackBoostedModel(packed: PackedBoostedModel): BoostedModel | null {
  let bytes: Uint8Array;
  try {
    // Copied into a fresh buffer: a typed array needs its element size's alignment.
    bytes = new Uint8Array(inflateSync(Buffer.from(packed.nodes, 'base64')));
  } catch {
    return null;
  }
  const count = packed.treeSizes.reduce((sum, size) => sum + size, 0);
  if (bytes.length !== count * BYTES_PER_NODE) return null;
  const at = columnsOf(count);
  if (BIG_ENDIAN) {
    Buffer.from(bytes.buffer, 0, at.feature).swap64();
    Buffer.from(bytes.buffer, at.feature, at.missingLeft - at.feature).swap16();
  }
  const threshold = new Float64Array(bytes.buffer, at.threshold, count);
  const value = new Float64Array(bytes.buffer, at.value, count);
  const feature = new Int16Array(bytes.buffer, at.feature, count);
  const left = new Int16Array(bytes.buffer, at.left, count);
  const right = new Int16Array(bytes.buffer, at.right, count);
  const missingLeft = new Uint8Array(bytes.buffer, at.missingLeft, count);

  const trees: RegressionTree[] = [];
  let start = 0;
  for (const size of packed.treeSizes) {
    for (let index = 0; index < size; index++) {
      const node = start + index;
      if (feature[node] >= packed.featureCount || feature[node] < -1) return null;
      const inner = feature[node] >= 0;
      if (inner && !(left[node] > index && left[node] < size && right[node] > index && right[node] < size))
        return null;
    }
    const end = start + size;
    trees.push({
      feature: feature.subarray(start, end),
      threshold: threshold.subarray(start, end),
      missingLeft: missingLeft.subarray(start, end),
      left: left.subarray(start, end),
      right: right.subarray(start, end),
      value: value.subarray(start, end),
    });
    start = end;
  }
  return { featureCount: packed.featureCount, base: packed.base, trees };
}
