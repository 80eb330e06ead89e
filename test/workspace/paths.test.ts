/**
 * Workspace paths: a table of hostile paths, each refused with its code, and the spellings that
 * normalize to one path.
 */
import { describe, expect, it } from 'vitest'
import { NeuronError } from '../../objects/core/errors.ts'
import { WORKSPACE_LIMITS } from '../../objects/core/limits.ts'
import { ancestorsOf, filePath, normalizePath, shellPath } from '../../objects/workspace/paths.ts'
import { codeOf } from '../support/codes.ts'


const long = (n: number) => 'a'.repeat(n)

describe('hostile paths', () => {
  const table: [string, unknown, 'PATH_ESCAPE' | 'PATH_INVALID'][] = [
    ['parent of the root', '..', 'PATH_ESCAPE'],
    ['parent then a file', '../x', 'PATH_ESCAPE'],
    ['climbs past the root after a descent', 'a/../../x', 'PATH_ESCAPE'],
    ['deep climb', 'a/b/../../../../etc/passwd', 'PATH_ESCAPE'],
    ['absolute outside the root', '/etc/passwd', 'PATH_ESCAPE'],
    ['the filesystem root', '/', 'PATH_ESCAPE'],
    ['a sibling sharing the prefix', '/workspace-other/x', 'PATH_ESCAPE'],
    ['a sibling sharing the prefix without separator', '/workspacex', 'PATH_ESCAPE'],
    ['absolute climbing out of the root', '/workspace/../etc/passwd', 'PATH_ESCAPE'],
    ['double slash root', '//workspace/a', 'PATH_ESCAPE'],
    ['home', '/home/user/.ssh/id_rsa', 'PATH_ESCAPE'],
    ['NUL in a name', 'a\u0000b', 'PATH_INVALID'],
    ['NUL truncation trick', 'a.txt\u0000.png', 'PATH_INVALID'],
    ['newline', 'a\nb', 'PATH_INVALID'],
    ['carriage return', 'a\rb', 'PATH_INVALID'],
    ['tab', 'a\tb', 'PATH_INVALID'],
    ['escape (terminal sequences)', '\u001b[31mred', 'PATH_INVALID'],
    ['DEL', 'a\u007f', 'PATH_INVALID'],
    ['C1 control', 'a\u0085b', 'PATH_INVALID'],
    ['right-to-left override', 'evil\u202etxt.exe', 'PATH_INVALID'],
    ['first-strong isolate', 'a\u2068b', 'PATH_INVALID'],
    ['backslash separator', 'a\\..\\..\\b', 'PATH_INVALID'],
    ['lone high surrogate', 'a\ud800b', 'PATH_INVALID'],
    ['lone low surrogate', 'a\udc00', 'PATH_INVALID'],
    ['not a string', 42, 'PATH_INVALID'],
    ['null', null, 'PATH_INVALID'],
    ['an array', ['a'], 'PATH_INVALID'],
    ['a name past NAME_MAX', long(WORKSPACE_LIMITS.segmentBytes + 1), 'PATH_INVALID'],
    ['a name past NAME_MAX in UTF-8 bytes', 'é'.repeat(128), 'PATH_INVALID'],
    ['a path past its limit', Array.from({ length: 8 }, () => long(200)).join('/'), 'PATH_INVALID'],
    ['a huge path', long(10_000_000), 'PATH_INVALID'],
    ['too deep', Array.from({ length: WORKSPACE_LIMITS.depth + 1 }, () => 'd').join('/'), 'PATH_INVALID'],
  ]
  it.each(table)('%s is refused', (_name, input, code) => {
    expect(codeOf(() => normalizePath(input))).toBe(code)
  })

  it('a refusal says why and repeats a bounded prefix of the path', () => {
    try {
      normalizePath(`${long(5000)}\u0000`)
      expect.unreachable()
    } catch (error) {
      const e = error as NeuronError
      expect(e.status).toBe(400)
      expect(String(e.details?.reason)).toMatch(/longer|control/)
      expect(String(e.details?.path).length).toBeLessThanOrEqual(201)
    }
    expect((() => { try { normalizePath('../x') } catch (e) { return (e as NeuronError).status } })()).toBe(403)
  })
})

describe('spellings of one path', () => {
  const table: [string, string, string | undefined, string][] = [
    ['plain', 'a.txt', undefined, 'a.txt'],
    ['dot segments', './src/./a.ts', undefined, 'src/a.ts'],
    ['empty segments', 'src//a.ts', undefined, 'src/a.ts'],
    ['a trailing slash', 'src/', undefined, 'src'],
    ['absolute under the root', '/workspace/src/a.ts', undefined, 'src/a.ts'],
    ['the root', '/workspace', undefined, ''],
    ['the root with a slash', '/workspace/', undefined, ''],
    ['a descent and a climb', 'a/b/../c', undefined, 'a/c'],
    ['relative to a cwd', '../b.ts', 'src/lib', 'src/b.ts'],
    ['absolute ignores the cwd', '/workspace/x', 'src', 'x'],
    ['NFD to NFC', 'cafe\u0301.txt', undefined, 'caf\u00e9.txt'],
    ['a tilde is a name', '~/x', undefined, '~/x'],
    ['percent-escapes are names', '%2e%2e/x', undefined, '%2e%2e/x'],
    ['dots in names', '..a/b..', undefined, '..a/b..'],
    ['a name at NAME_MAX', long(WORKSPACE_LIMITS.segmentBytes), undefined, long(WORKSPACE_LIMITS.segmentBytes)],
  ]
  it.each(table)('%s', (_name, input, cwd, expected) => {
    expect(normalizePath(input, cwd === undefined ? {} : { cwd })).toBe(expected)
  })

  it('a file path is not the root', () => {
    expect(codeOf(() => filePath('/workspace'))).toBe('PATH_INVALID')
    expect(codeOf(() => filePath('a/..'))).toBe('PATH_INVALID')
    expect(filePath('a/b')).toBe('a/b')
  })

  it('shell paths and ancestors', () => {
    expect(shellPath('a/b')).toBe('/workspace/a/b')
    expect(shellPath('')).toBe('/workspace')
    expect(ancestorsOf('a/b/c')).toEqual(['a', 'a/b'])
    expect(ancestorsOf('a')).toEqual([])
  })
})
