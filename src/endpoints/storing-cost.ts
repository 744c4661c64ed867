/**
 * What storing a request's records will take of the store's memory, told before anything of it is
 * stored: a record costs the store a cell per column of its table, every typed field of a STRUCT
 * counted, whether or not the record sets it, so a small body can be costly to store.
 */
export interface StoringCost {
  readonly records: number;
  /** The columns, each field of a STRUCT counted, that each record fills. */
  readonly columns: number;
  readonly bytes: number;
}

/** Told a request's cost before anything of it is stored; throws to refuse it. */
export type AdmitStoring = (cost: StoringCost) => void;
