/** drizzle-kit's `migrations.js` imports `.sql` files as text (see the Text rule in wrangler.toml). */
declare module '*.sql' {
  const text: string
  export default text
}
