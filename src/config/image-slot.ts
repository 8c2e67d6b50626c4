/** The image of a slot of memrl.evaluator.docker.images (the schema fills every registered slot). */
import { UserError } from '../util/errors.js';
import type { DockerSettings } from './types.js';

export function imageOf(settings: DockerSettings, slot: string): string {
  const image = settings.images[slot];
  if (!image) throw new UserError(`memrl.evaluator.docker.images.${slot} is not set; name the image to run in`, 'image_unset');
  return image;
}
