/**
 * Whether a production secret (the operator token, the root of derived keys, the metrics token)
 * is hard enough to guess: judged by zxcvbn (@zxcvbn-ts, a maintained port of Dropbox's
 * estimator: dictionaries, keyboard walks, repeats, sequences, dates, l33t), not by its length,
 * so `aaaa…`, `passwordpassword…` or `Summer2024!Summer2024!…` are refused however long. Its
 * dictionaries (~7 MB) are loaded only when a production server starts (docs/security.md "What
 * production needs").
 */

/**
 * The fewest guesses, as a power of ten, a secret must need by zxcvbn's estimate: 10^24, about 80
 * bits. Random secrets clear it with room: 32 random hex characters (128 bits) estimate at 88 bits
 * or more, `openssl rand -base64 32` at about 144.
 */
export const MIN_GUESSES_LOG10 = 24;

let estimator: Promise<(secret: string) => number> | undefined;

/** zxcvbn with the common and English dictionaries, made once. Answers log10 of the guesses a secret needs. */
function guessesLog10(): Promise<(secret: string) => number> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, en] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    const zxcvbn = new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...en.dictionary },
      graphs: common.adjacencyGraphs,
    });
    return (secret: string) => zxcvbn.check(secret).guessesLog10;
  })();
  return estimator;
}

/** Why the secret named `name` is too easy to guess, or undefined when it is not. */
export async function weakSecretProblem(name: string, secret: string): Promise<string | undefined> {
  const log10 = (await guessesLog10())(secret);
  if (log10 >= MIN_GUESSES_LOG10) return undefined;
  const bits = Math.round(log10 * Math.log2(10));
  return (
    `${name} is too easy to guess (about ${bits} bits by zxcvbn's estimate; pbs wants ${Math.round(MIN_GUESSES_LOG10 * Math.log2(10))}): ` +
    'use a random one, e.g. `openssl rand -base64 32`; see docs/security.md'
  );
}
