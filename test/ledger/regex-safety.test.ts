import { describe, expect, it } from 'vitest'
import { unsafePattern } from '../../objects/ledger/regex-safety.ts'

describe('unsafePattern', () => {
  it.each(['^(a+)+$', '(a*)*', '(a|aa)+', '(\\w+\\s?)*', '(?:x{2,})+', '^(?<n>a+)+$', '((a+)b)+', '(x+x+)+y', '((a|b)c)*', '^(a)\\1$', '(?<x>a)\\k<x>'])(
    'refuses %s',
    (pattern) => expect(unsafePattern(pattern)).not.toBeNull(),
  )

  it.each(['^[a-z]+$', '^(\\+|-)?\\d+$', '(a|b)?', '^\\d{3}-\\d{4}$', '(ab){2}', '(a{1,1})+', '((a)b)+', '\\u{1F600}+', '[(+]*', '^a*a*$'])(
    'allows %s',
    (pattern) => expect(unsafePattern(pattern)).toBeNull(),
  )
})
