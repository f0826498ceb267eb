/** Cell size in degrees: about 11 km north to south, so a 10 km radius visits a few cells. */
const CELL_DEGREES = 0.1;
const cellOf = (degrees: number) => Math.floor(degrees / CELL_DEGREES);
const key = (latCell: number, lonCell: number) => (latCell + 1000) * 4000 + (lonCell + 2000);

/** Searchable businesses by map cell, for searches around a point (latitude and longitude). */
export class GridIndex {
  private readonly cells = new Map<number, Set<number>>();

  add(ordinal: number, latitude: number, longitude: number): void {
    const k = key(cellOf(latitude), cellOf(longitude));
    let cell = this.cells.get(k);
    if (!cell) this.cells.set(k, (cell = new Set()));
    cell.add(ordinal);
  }

  remove(ordinal: number, latitude: number, longitude: number): void {
    const k = key(cellOf(latitude), cellOf(longitude));
    const cell = this.cells.get(k);
    cell?.delete(ordinal);
    if (cell?.size === 0) this.cells.delete(k);
  }

  /** Every business in the cells that touch the box of `radius` metres around the point (a superset of those within it). */
  *around(latitude: number, longitude: number, radius: number): Generator<number> {
    const dLat = radius / 111_000;
    // Near the poles a degree of longitude shrinks to nothing: then every longitude.
    const cos = Math.cos((Math.min(Math.abs(latitude) + dLat, 89.9) * Math.PI) / 180);
    const dLon = Math.min(180, radius / (111_320 * cos));
    const visited = new Set<number>();
    for (let la = cellOf(latitude - dLat); la <= cellOf(latitude + dLat); la++) {
      for (let lo = cellOf(longitude - dLon); lo <= cellOf(longitude + dLon); lo++) {
        // Across the antimeridian: the cell on the other side (each visited once).
        const wrapped = ((((lo * CELL_DEGREES + 180) % 360) + 360) % 360) - 180;
        const k = key(la, cellOf(wrapped + CELL_DEGREES / 2));
        if (visited.has(k)) continue;
        visited.add(k);
        const cell = this.cells.get(k);
        if (cell) yield* cell;
      }
    }
  }
}
