import { deflateSync, inflateSync } from 'node:zlib';
import { withPlainArrays } from '@solar/testing';
import { BoostedModel, fitBoosted, predictBoosted, seededRandom } from './gradient-boosting';
import {
  isPackedBoostedModel,
  packBoostedModel,
  PackedBoostedModel,
  unpackBoostedModel,
} from './packed-trees';

/** y = x₀² + 2·[x₁ missing] + x₂·x₃, a tenth of x₁ missing: splits, missing branches and leaves. */
function fittedModel(): { model: BoostedModel; rows: Float64Array; rowCount: number } {
  const random = seededRandom(3);
  const rowCount = 3000;
  const featureCount = 4;
  const rows = new Float64Array(rowCount * featureCount);
  const targets = new Float64Array(rowCount);
  for (let row = 0; row < rowCount; row++) {
    const x = [random(), row % 10 === 0 ? NaN : random(), random() * 4 - 2, random()];
    rows.set(x, row * featureCount);
    targets[row] = x[0] ** 2 + (Number.isNaN(x[1]) ? 2 : 0) + x[2] * x[3];
  }
  const { model } = fitBoosted({ rowCount, featureCount, values: rows, targets }, null, { rounds: 120 });
  return { model, rows, rowCount };
}

const { model, rows, rowCount } = fittedModel();

/** The packed nodes as raw bytes, changed by `edit`, packed again. */
function withBytes(packed: PackedBoostedModel, edit: (bytes: Buffer, nodeCount: number) => Buffer) {
  const bytes = inflateSync(Buffer.from(packed.nodes, 'base64'));
  const nodeCount = packed.treeSizes.reduce((sum, size) => sum + size, 0);
  return { ...packed, nodes: deflateSync(edit(bytes, nodeCount)).toString('base64') };
}

describe('packed trees', () => {
  it('give back the same trees, number for number, through JSON', () => {
    const packed: unknown = JSON.parse(JSON.stringify(packBoostedModel(model)));
    expect(isPackedBoostedModel(packed)).toBe(true);
    if (!isPackedBoostedModel(packed)) return;
    const unpacked = unpackBoostedModel(packed);
    if (!unpacked) throw new Error('unreadable');
    expect(withPlainArrays(unpacked)).toEqual(model);
    for (let row = 0; row < rowCount; row++) {
      expect(predictBoosted(unpacked, rows, row * 4)).toBe(predictBoosted(model, rows, row * 4));
    }
  });

  it('take under a third of the plain JSON arrays', () => {
    const plain = JSON.stringify(model).length;
    const packed = JSON.stringify(packBoostedModel(model)).length;
    expect(packed).toBeLessThan(plain / 3);
  });

  it('pack a model without trees, and a tree of one leaf', () => {
    const constant = { featureCount: 2, base: 0.8, trees: [] };
    expect(unpackBoostedModel(packBoostedModel(constant))).toEqual(constant);
    const stump = { feature: [-1], threshold: [0], missingLeft: [0], left: [-1], right: [-1], value: [0.25] };
    const unpacked = unpackBoostedModel(packBoostedModel({ ...constant, trees: [stump] }));
    expect(unpacked && withPlainArrays(unpacked)).toEqual({ ...constant, trees: [stump] });
  });

  it('read as null when damaged, never as other trees', () => {
    const packed = packBoostedModel(model);
    const firstTree = model.trees[0];
    const root = { feature: 16, left: 18 };
    const damaged: Array<[string, PackedBoostedModel]> = [
      ['not deflate data', { ...packed, nodes: Buffer.from('plain bytes').toString('base64') }],
      [
        'one node short',
        { ...packed, treeSizes: [firstTree.feature.length - 1, ...packed.treeSizes.slice(1)] },
      ],
      ['a byte missing', withBytes(packed, (bytes) => bytes.subarray(0, bytes.length - 1))],
      [
        'a feature the model does not have',
        withBytes(packed, (bytes, count) => (bytes.writeInt16LE(4, root.feature * count), bytes)),
      ],
      [
        // A root whose left child is itself would send the walk round for ever.
        'a child before its parent',
        withBytes(packed, (bytes, count) => (bytes.writeInt16LE(0, root.left * count), bytes)),
      ],
    ];
    expect(firstTree.feature[0]).toBeGreaterThanOrEqual(0);
    for (const [what, bytes] of damaged) expect([what, unpackBoostedModel(bytes)]).toEqual([what, null]);
  });

  it('are told from the plain arrays of older models', () => {
    expect(isPackedBoostedModel(JSON.parse(JSON.stringify(model)))).toBe(false);
    expect(isPackedBoostedModel({ ...packBoostedModel(model), treeSizes: [0] })).toBe(false);
  });
});
