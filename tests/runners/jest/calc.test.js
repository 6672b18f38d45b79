// jest: two pass, two fail (in two files), one skipped.
const div = (a, b) => Math.trunc(a / b);

test('adds', () => {
  expect(1 + 1).toBe(2);
});

test('divides', () => {
  expect(div(7, 2)).toBe(4);
});

describe('words', () => {
  test('upper', () => {
    expect('a'.toUpperCase()).toBe('A');
  });
  test('lower', () => {
    expect('A'.toLowerCase()).toBe('b');
  });
});

test.skip('later', () => {});
