import { describe, expect, it } from 'vitest';
import { extractCode } from '../../src/bench/bcb/extract.js';

describe('extractCode', () => {
  it('takes the first ```python block', () => {
    const reply = 'Here:\n```python\nimport os\ndef task_func():\n    return 1\n```\nand a test:\n```python\nprint(2)\n```\n';
    expect(extractCode(reply)).toBe('import os\ndef task_func():\n    return 1');
  });

  it('prefers a python block over an earlier block of another language', () => {
    const reply = 'Install:\n```bash\npip install numpy\n```\nCode:\n```py\nx = 1\n```';
    expect(extractCode(reply)).toBe('x = 1');
  });

  it('falls back to the first untagged or other block', () => {
    expect(extractCode('Sure.\n```\ny = 2\n```\n')).toBe('y = 2');
    expect(extractCode('```text\nz = 3\n```')).toBe('z = 3');
  });

  it('uses the whole reply when there is no fence', () => {
    expect(extractCode('def task_func():\n    return 3\n\n\n')).toBe('def task_func():\n    return 3');
  });

  it('keeps the body of a block cut off before its closing fence', () => {
    expect(extractCode('```python\ndef f():\n    return 1')).toBe('def f():\n    return 1');
  });

  it('does not stop at backticks inside the code', () => {
    const reply = '```python\ns = "```"\nt = 1\n```';
    expect(extractCode(reply)).toBe('s = "```"\nt = 1');
  });

  it('accepts longer fences, tildes and indented fences', () => {
    expect(extractCode('````python\na = "```"\n````')).toBe('a = "```"');
    expect(extractCode('~~~python\nb = 1\n~~~')).toBe('b = 1');
    expect(extractCode('  ```python\n  c = 1\n  ```')).toBe('  c = 1');
  });
});
