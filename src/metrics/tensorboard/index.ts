export { crc32c, maskCrc, maskedCrc32c } from './crc32c.js';
export { frameRecord } from './tfrecord.js';
export { encodeEvent, type EventFields, type HistogramValue, type ScalarValue } from './event-proto.js';
export { TensorBoardWriter, FILE_VERSION, histogramOf, type TensorBoardWriterOptions } from './writer.js';
export {
  MEMRL_TAGS,
  Q_HISTOGRAM_TAGS,
  epochScalars,
  successRateTags,
  writeEpochScalars,
  type EpochScalarOptions,
  type ReferenceTags,
  type ScalarSink,
  type TagFamily,
  type TagMetric,
} from './tags.js';
