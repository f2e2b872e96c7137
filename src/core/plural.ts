/** "1 file", "3 files": a count with its noun in the right number, for texts people and models read. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
