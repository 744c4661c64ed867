import type { Ast } from './bigquery-ast.js';
import type { Columns } from './unnest-scope.js';

/**
 * The CTEs of one statement's translation: which are visible where (each WITH opens a level,
 * innermost last), which are constant one-row CTEs (constant-ctes.ts), and which names each
 * query references, so that CTEs nothing reaches can be dropped.
 */
export class CteScopes {
  /** Constant one-row CTEs: name → column → expression. */
  readonly constants = new Map<string, Map<string, Ast>>();
  /** The CTEs visible from the query being printed, innermost WITH last: name → output columns. */
  private readonly levels: Map<string, Columns>[] = [];
  /** One set per query being printed, collecting the CTE names it references. */
  private readonly uses: Set<string>[] = [];

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

  /** Runs `print` and returns the CTE names referenced while it ran, at any depth. */
  tracingUse<T>(print: () => T): { result: T; uses: Set<string> } {
    const uses = new Set<string>();
    this.uses.push(uses);
    try {
      return { result: print(), uses };
    } finally {
      this.uses.pop();
    }
  }

  /** Records a reference to the CTE `name` for every query being printed. */
  use(name: string): void {
    for (const uses of this.uses) uses.add(name.toLowerCase());
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
