/** Builds the web console into `outDir` (emptied first); returns the files written, relative to it. */
export function buildConsole(outDir: string, options?: { minify?: boolean }): Promise<string[]>;
