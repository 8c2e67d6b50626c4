export { crc32c, maskCrc, maskedCrc32c } from './crc32c.js';
export { frameRecord } from './tfrecord.js';
export { encodeEvent, type EventFields, type HistogramValue, type ScalarValue } from './event-proto.js';
export { TensorBoardWriter, FILE_VERSION, histogramOf, type TensorBoardWriterOptions } from './writer.js';
export {
  BCB_TAGS,
  DEFAULT_EVAL_SET,
  HLE_TAGS,
  MEMRL_TAGS,
  Q_HISTOGRAM_TAGS,
  SUCCESS_RATE_TAGS,
  epochScalars,
  tagFamily,
  writeEpochScalars,
  type EpochScalarOptions,
  type ScalarSink,
  type TagFamily,
} from './tags.js';
