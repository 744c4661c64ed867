import { z } from 'zod';

/** BigQuery's largest INT64, the type of a job's maximumBytesBilled. */
const int64Max = 9_223_372_036_854_775_807n;

/**
 * A bytes cap as BigQuery takes it, an INT64 in decimal digits; 0 is refused as a cap no query
 * could meet. Shared by QUERYGATE_BIGQUERY_MAX_BYTES_BILLED and the manifest's per-endpoint cap.
 */
export const maximumBytesBilledSchema = z
  .string()
  .refine(
    (value) => /^[1-9]\d{0,18}$/.test(value) && BigInt(value) <= int64Max,
    `must be a whole number of bytes from 1 to ${int64Max} (INT64), e.g. 10000000000 for 10 GB`,
  );
