import type { Ast } from './bigquery-ast.js';
import type { Columns } from './unnest-scope.js';

/**
 * What a query's translation references: CTE names (lower case) and `@name` parameters (and
 * `__now`, for CURRENT_TIMESTAMP()). Each query reports its own to the query around it only once
 * it knows which of its CTEs it keeps, so a dropped CTE's references are dropped with it.
 */
export interface References {
  readonly ctes: Set<string>;
  readonly parameters: Set<string>;
}

/**
 * The CTEs of one statement's translation: which are visible where (each WITH opens a level,
 * innermost last), which are constant one-row CTEs (constant-ctes.ts), and what each query
 * references, so that CTEs nothing reaches can be dropped and the statement declares exactly the
 * parameters its DuckDB text has (DuckDB refuses to bind a parameter the text lacks).
 */
export class CteScopes {
  /** Constant one-row CTEs: name → column → expression. */
  readonly constants = new Map<string, Map<string, Ast>>();
  /** The CTEs visible from the query being printed, innermost WITH last: name → output columns. */
  private readonly levels: Map<string, Columns>[] = [];
  /** One per query part being printed, innermost last, collecting what it references. */
  private readonly tracing: References[] = [];

  /** Runs `print` with a new WITH level, to which `define` adds the CTEs as they are printed. */
  withLevel<T>(print: (define: (name: string, columns: Columns) => void) => T): T {
    const visible = new Map<string, Columns>();
    this.levels.push(visible);
    try {
      return print((name, columns) => visible.set(name.toLowerCase(), columns));
    } finally {
      this.levels.pop();
    }
  }

  /**
   * Runs `print` and returns what it referenced directly, and what the queries printed inside it
   * reported (`report`). Nothing is passed on to the part around it: its caller reports what it keeps.
   */
  tracingUse<T>(print: () => T): { result: T; uses: References } {
    const uses: References = { ctes: new Set(), parameters: new Set() };
    this.tracing.push(uses);
    try {
      return { result: print(), uses };
    } finally {
      this.tracing.pop();
    }
  }

  /** Records a reference to the CTE `name` in the part being printed. */
  use(name: string): void {
    this.tracing.at(-1)?.ctes.add(name.toLowerCase());
  }

  /** Records a use of the parameter `name` (without its `@` or `$`) in the part being printed. */
  useParameter(name: string): void {
    this.tracing.at(-1)?.parameters.add(name);
  }

  /** Passes what a printed query kept on to the part around it. */
  report(references: References): void {
    const around = this.tracing.at(-1);
    if (!around) return;
    for (const name of references.ctes) around.ctes.add(name);
    for (const name of references.parameters) around.parameters.add(name);
  }

  /** The output columns of the CTE `name` visible here, or false when no CTE has that name. */
  find(name: string): Columns | false {
    const lower = name.toLowerCase();
    for (let i = this.levels.length - 1; i >= 0; i--) {
      const visible = this.levels[i] as Map<string, Columns>;
      if (visible.has(lower)) return visible.get(lower);
    }
    return false;
  }
}
