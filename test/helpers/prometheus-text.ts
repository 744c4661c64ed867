/**
 * A strict reader of Prometheus' text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/), written from the format's
 * description, not from prom-client: it throws on the first line that is not a `# HELP`, a
 * `# TYPE`, a comment or a sample, on a family typed twice or typed after its samples, and on a
 * sample whose name belongs to no family it was typed under.
 */

export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PrometheusFamily {
  readonly name: string;
  readonly type: string;
  readonly help: string | undefined;
  readonly samples: PrometheusSample[];
}

const metricName = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const labelName = '[a-zA-Z_][a-zA-Z0-9_]*';
const types = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
// The samples a family of each type may have besides its own name.
const suffixes: Record<string, readonly string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['_sum', '_count'],
};

export function parsePrometheusText(text: string): Map<string, PrometheusFamily> {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  const families = new Map<string, PrometheusFamily>();
  const helps = new Map<string, string>();
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((line, index) => {
    const where = `line ${index + 1} (${JSON.stringify(line.slice(0, 120))})`;
    if (line.trim() === '') return;
    const help = new RegExp(`^# HELP (${metricName}) (.*)$`).exec(line);
    if (help) {
      const [, name = '', docstring = ''] = help;
      if (helps.has(name)) throw new Error(`${where}: a second HELP for ${name}`);
      helps.set(name, docstring);
      return;
    }
    const typed = new RegExp(`^# TYPE (${metricName}) (\\S+)$`).exec(line);
    if (typed) {
      const [, name = '', type = ''] = typed;
      if (!types.has(type)) throw new Error(`${where}: unknown type ${type}`);
      if (families.has(name)) throw new Error(`${where}: ${name} is typed twice`);
      if ([...families.values()].some((family) => family.samples.some((sample) => sample.name === name))) {
        throw new Error(`${where}: ${name} is typed after its samples`);
      }
      families.set(name, { name, type, help: helps.get(name), samples: [] });
      return;
    }
    if (line.startsWith('#')) {
      if (/^# (HELP|TYPE)\b/.test(line)) throw new Error(`${where}: a malformed ${line.slice(2, 6)} line`);
      return;
    }
    const sample = parseSample(line, where);
    const family = familyOf(sample.name, families);
    if (!family) throw new Error(`${where}: ${sample.name} belongs to no family typed before it`);
    family.samples.push(sample);
  });
  return families;
}

function familyOf(name: string, families: Map<string, PrometheusFamily>): PrometheusFamily | undefined {
  const own = families.get(name);
  if (own) return own;
  for (const family of families.values()) {
    if ((suffixes[family.type] ?? []).some((suffix) => name === `${family.name}${suffix}`)) return family;
  }
  return undefined;
}

function parseSample(line: string, where: string): PrometheusSample {
  const head = new RegExp(`^(${metricName})`).exec(line);
  if (!head) throw new Error(`${where}: not a sample`);
  const name = head[1] ?? '';
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    while (!rest.startsWith('}')) {
      const pair = new RegExp(`^(${labelName})="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`).exec(rest);
      if (!pair) throw new Error(`${where}: a malformed label`);
      const [whole, label = '', escaped = ''] = pair;
      if (label in labels) throw new Error(`${where}: label ${label} given twice`);
      labels[label] = escaped.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(whole.length);
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (!rest.startsWith('}')) throw new Error(`${where}: labels not separated by commas`);
    }
    rest = rest.slice(1);
  }
  const value = /^ (\S+)(?: (-?\d+))?$/.exec(rest);
  if (!value) throw new Error(`${where}: no value after the name and labels`);
  return { name, labels, value: floatValue(value[1] ?? '', where) };
}

/**
 * A value as Go's ParseFloat reads it, as the format says: a decimal or exponent number, or
 * NaN, Inf, +Inf, -Inf, Infinity in any case (prom-client writes `Nan`).
 */
function floatValue(text: string, where: string): number {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (special) {
    if ((special[2] ?? '').toLowerCase() === 'nan') return Number.NaN;
    return special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text))
    throw new Error(`${where}: ${text} is not a number`);
  return Number(text);
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none. */
export function sampleValue(
  families: Map<string, PrometheusFamily>,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  const matching = [...families.values()]
    .flatMap((family) => family.samples)
    .filter(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  if (matching.length > 1)
    throw new Error(`${matching.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matching[0]?.value ?? 0;
}
