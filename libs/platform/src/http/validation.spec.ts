import { plainToInstance, Type } from 'class-transformer';
import { IsInt, IsString, ValidateNested, validateSync } from 'class-validator';
import { ClampedInt } from './dto-decorators';
import { flattenValidationErrors } from './validation';

class Child {
  @IsString()
  name!: string;
}

class Parent {
  @IsInt()
  count!: number;

  @ValidateNested({ each: true })
  @Type(() => Child)
  children!: Child[];
}

class Query {
  @ClampedInt({ min: 1, max: 100, default: 20 })
  pageSize = 20;
}

describe('flattenValidationErrors', () => {
  it('names nested fields by their path', () => {
    const instance = plainToInstance(Parent, { count: 'x', children: [{ name: 'ok' }, { name: 3 }] });
    expect(flattenValidationErrors(validateSync(instance))).toEqual({
      count: ['count must be an integer number'],
      'children.1.name': ['name must be a string'],
    });
  });
});

describe('ClampedInt', () => {
  it.each([
    [undefined, 20],
    ['', 20],
    ['0', 1],
    ['1', 1],
    ['100', 100],
    ['101', 100],
    ['-5', 1],
    [55, 55],
  ])('reads %p as %p', (raw, expected) => {
    const query = plainToInstance(Query, raw === undefined ? {} : { pageSize: raw });
    expect(validateSync(query)).toEqual([]);
    expect(query.pageSize).toBe(expected);
  });

  it.each(['abc', '1.5', '1e3', '99999999999999999999'])('rejects %p', (raw) => {
    const errors = validateSync(plainToInstance(Query, { pageSize: raw }));
    expect(flattenValidationErrors(errors)).toEqual({ pageSize: ['pageSize must be an integer'] });
  });
});
