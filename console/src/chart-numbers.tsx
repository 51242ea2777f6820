/** A table's header row: one column heading per name. */
export function ColumnHeads({ columns }: { columns: readonly string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th scope="col" key={column}>
            {column}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** A chart's numbers as a table behind "Show the numbers": what a screen reader reads instead of the canvas. */
export function ChartNumbers({ headings, rows }: { headings: readonly string[]; rows: ReadonlyArray<ReadonlyArray<string | number>> }) {
  return (
    <details>
      <summary>Show the numbers</summary>
      <table>
        <ColumnHeads columns={headings} />
        <tbody>
          {rows.map((row) => (
            <tr key={row.join('|')}>
              {row.map((cell, index) => (
                <td key={index}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
