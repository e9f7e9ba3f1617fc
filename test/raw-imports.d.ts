/** Vite's `?raw` imports: a file's text, e.g. a doc a test holds to the code. */
declare module "*?raw" {
  const text: string;
  export default text;
}
