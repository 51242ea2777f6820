/**
 * The Powertools Logger and Metrics with their output handed to a function
 * instead of stdout: the local runtime prints it for a terminal, the tests
 * keep it in memory. Everything else (levels, Lambda context, correlation
 * id, the redacting replacer, EMF serialisation) is Powertools' own, so
 * what a developer sees and what the tests assert is what Lambda writes.
 */
import { Logger, LogLevelThreshold, type LogItem } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions as LoggerOptions } from '@aws-lambda-powertools/logger/types';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { houseLoggerOptions, houseMetricsOptions, type Observability } from './observability';

/** One log line: its level name (e.g. `INFO`) and the exact JSON Lambda would print. */
export type LineSink = (level: string, json: string) => void;
/** One EMF document, as Lambda would print it. */
export type MetricsSink = (emf: Record<string, unknown>) => void;

const LEVEL_NAMES: Record<number, string> = Object.fromEntries(Object.entries(LogLevelThreshold).map(([name, threshold]) => [threshold, name]));

/** A Logger whose lines go to `sink`, serialised exactly as Powertools serialises them (replacer included). */
export class SinkLogger extends Logger {
  // Plain fields: Powertools may log from its own constructor (e.g. when
  // sampling turns DEBUG on), before these are set; such lines wait here.
  private sink?: LineSink;
  private early?: [string, string][];

  constructor(sink: LineSink, options: LoggerOptions = {}) {
    super(houseLoggerOptions(options));
    this.sink = sink;
    for (const [level, json] of this.early ?? []) sink(level, json);
    this.early = undefined;
  }

  protected override printLog(logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    const line: [string, string] = [LEVEL_NAMES[logLevel] ?? String(logLevel), JSON.stringify(log.getAttributes(), this.getJsonReplacer())];
    if (this.sink) this.sink(...line);
    else (this.early ??= []).push(line);
  }

  protected override createLogger(options?: LoggerOptions): Logger {
    return new SinkLogger(this.sink ?? (() => undefined), options);
  }
}

/** Metrics whose EMF documents (stored and single metrics alike) go to `sink`. */
export class SinkMetrics extends Metrics {
  readonly #sink: MetricsSink;

  constructor(sink: MetricsSink, options: ConstructorParameters<typeof Metrics>[0] = houseMetricsOptions()) {
    super(options);
    this.#sink = sink;
  }

  override publishStoredMetrics(): this {
    try {
      if (this.hasStoredMetrics()) this.#sink(this.serializeMetrics() as unknown as Record<string, unknown>);
    } finally {
      this.clearMetrics();
      this.clearDimensions();
      this.clearMetadata();
    }
    return this;
  }

  override singleMetric(): Metrics {
    const single = new SinkMetrics(this.#sink, { ...houseMetricsOptions(), singleMetric: true });
    return single;
  }
}

/** Logger and metrics writing to these sinks; no tracer. */
export function sinkObservability(lines: LineSink, metrics: MetricsSink, loggerOptions: LoggerOptions = {}): Observability {
  return { logger: new SinkLogger(lines, loggerOptions), metrics: new SinkMetrics(metrics) };
}
