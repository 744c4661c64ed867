/**
 * BigQuery's JSON keeps a number only as an INT64, a UINT64 or a DOUBLE; under PARSE_JSON's default
 * wide_number_mode 'exact' (and for a JSON literal) a number no DOUBLE holds exactly is an error
 * (json_functions.md: PARSE_JSON('{"id": 922337203685477580701}') fails). ZetaSQL's test
 * (json_value.cc CheckNumberRoundtrip): a number that is no 64-bit integer is read as a double,
 * and the double's shortest text must have the same decimal value as the input's. DuckDB's json()
 * keeps any number's text, so the translation checks it here.
 */

/** ZetaSQL's limit on a number's text (CheckNumberRoundtrip kMaxStringLength). */
const longestNumber = 1500;

const numberToken = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** BigQuery's error for the first number of JSON text it refuses, or undefined when it keeps all. */
export function jsonNumberFault(text: string): string | undefined {
  for (let at = 0; at < text.length; at++) {
    const character = text[at];
    if (character === '"') {
      // Past the string: its escapes (\" among them) are two characters each.
      for (at++; at < text.length && text[at] !== '"'; at++) if (text[at] === '\\') at++;
      continue;
    }
    if (character !== '-' && !(character !== undefined && character >= '0' && character <= '9')) continue;
    numberToken.lastIndex = at;
    const token = numberToken.exec(text)?.[0];
    if (token === undefined) continue;
    at += token.length - 1;
    const fault = numberFault(token);
    if (fault) return fault;
  }
  return undefined;
}

function numberFault(token: string): string | undefined {
  if (/^-?\d+$/.test(token)) {
    const value = BigInt(token);
    // nlohmann's parser keeps these as integers, exactly.
    if (value >= -(2n ** 63n) && value < 2n ** 64n) return undefined;
  }
  if (token.length > longestNumber) return `Input number ${token} is too long.`;
  const double = Number(token);
  if (Number.isFinite(double) && decimalValue(String(double)) === decimalValue(token)) return undefined;
  return `Input number: ${token} cannot round-trip through string representation`;
}

/** A number's text as its exact decimal value: sign, significant digits and a power of ten. */
function decimalValue(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  let power = Number(exponent) - fraction.length;
  if (digits === '') return '0';
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    power++;
  }
  return `${sign}${digits}e${power}`;
}
