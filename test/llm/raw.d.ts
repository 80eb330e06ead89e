/** Recorded streams are imported as their exact text with Vite's `?raw`. */
declare module '*.sse?raw' {
  const text: string
  export default text
}
