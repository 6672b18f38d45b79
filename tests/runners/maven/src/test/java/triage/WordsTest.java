// JUnit 4: one fails, one passes.
package triage;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class WordsTest {
	@Test
	public void upper() {
		assertEquals("B", "a".toUpperCase());
	}

	@Test
	public void lower() {
		assertEquals("a", "A".toLowerCase());
	}
}
