import { plainToInstance, Type } from 'class-transformer';
import { IsInt, IsString, ValidateNested, validateSync } from 'class-validator';
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

describe('flattenValidationErrors', () => {
  it('names nested fields by their path', () => {
    const instance = plainToInstance(Parent, { count: 'x', children: [{ name: 'ok' }, { name: 3 }] });
    expect(flattenValidationErrors(validateSync(instance))).toEqual({
      count: ['count must be an integer number'],
      'children.1.name': ['name must be a string'],
    });
  });
});
