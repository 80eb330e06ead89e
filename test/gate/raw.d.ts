/** Docs are imported as their exact text with Vite's `?raw`, so tests can hold them to the route table. */
declare module '*.md?raw' {
  const text: string
  export default text
}
