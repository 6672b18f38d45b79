// jest: a throw inside a test, and a passing test whose name holds the
// failing one's.
test('throws', () => {
  throw new Error('no such file');
});

test('throws not', () => {
  expect(true).toBe(true);
});
