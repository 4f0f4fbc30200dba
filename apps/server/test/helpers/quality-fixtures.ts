import type { TQualityParameter } from '@manifold/contract';

/** A required measurement: 10 to 12 mm. */
export const heightParameter: TQualityParameter = {
  id: 'height',
  type: 'decimal',
  units: 'mm',
  encrypt: false,
  required: true,
  adjust: 'FREE',
  low: 10,
  high: 12,
};

/** An optional choice: matte or gloss. */
export const finishParameter: TQualityParameter = {
  id: 'finish',
  type: 'choice',
  encrypt: false,
  required: false,
  adjust: 'FREE',
  choiceList: ['matte', 'gloss'],
};
