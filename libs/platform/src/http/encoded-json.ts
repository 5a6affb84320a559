import { Header } from '@nestjs/common';

/**
 * For handlers that return an already encoded JSON document (`JsonText`): Nest sends a string
 * as it is, and this gives it the type `res.json` would have given the value.
 */
export const SendsEncodedJson = () => Header('Content-Type', 'application/json; charset=utf-8');
