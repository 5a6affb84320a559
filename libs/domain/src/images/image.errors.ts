import { BadRequestError, DomainError, NotFoundError } from '@solar/core';
import { MAX_IMAGE_BYTES } from './image-format';

/** Missing, or someone else's: the same answer, so image URLs cannot be probed. */
export class ImageNotFoundError extends NotFoundError {
  constructor() {
    super('Image not found');
  }
}

export class ImageTooLargeError extends DomainError {
  constructor() {
    super('payload_too_large', `The image exceeds the ${MAX_IMAGE_BYTES / (1024 * 1024)} MB limit`);
  }
}

export class InvalidImageError extends BadRequestError {}
