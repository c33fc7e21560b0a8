//! `nodecast sweep -o parquet --out FILE`: the sweep table as one Parquet file, for pandas,
//! polars, DuckDB or Spark without a CSV parse that guesses types.
//!
//! Every column is OPTIONAL (a failed combination has null metrics) and typed before the first
//! row is computed, from the cells the column can hold (`Sweep::column_samples`: every value of a
//! parameter column, one sample per metric): booleans → BOOLEAN, integers → INT64, integers past
//! i64 (seeds up to 2^64-1) → UINT64 (INT64 storage, unsigned logical type), any other number →
//! DOUBLE, otherwise a UTF8 string (lists and mappings as the same compact JSON the CSV holds).
//! An integer is never widened to DOUBLE unless its column also holds fractions, so a seed of
//! 2^53 + 1 stays that seed. Rows are written as they come, in row groups of `ROW_GROUP` rows
//! (memory holds one group, whatever the number of rows). The file is uncompressed and holds no
//! timestamp: the same rows give the same bytes.

use parquet::basic::{IntType, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use serde_json::Value;
use std::io::Write;
use std::sync::Arc;

/// Rows per row group: a few MB of a typical sweep's rows.
pub const ROW_GROUP: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Bool,
    /// Integers, all within i64.
    Int,
    /// Non-negative integers, some past i64::MAX.
    UInt,
    Double,
    Text,
}

/// The narrowest type every non-null cell of `cells` fits; an all-null column is text.
fn kind_of<'a>(cells: impl IntoIterator<Item = &'a Value>) -> Kind {
    let mut kind: Option<Kind> = None;
    let mut negative = false;
    for cell in cells {
        let this = match cell {
            Value::Null => continue,
            Value::Bool(_) => Kind::Bool,
            Value::Number(n) if n.is_i64() => {
                negative |= n.as_i64().is_some_and(|i| i < 0);
                Kind::Int
            }
            Value::Number(n) if n.is_u64() => Kind::UInt,
            Value::Number(_) => Kind::Double,
            _ => Kind::Text,
        };
        kind = Some(match (kind, this) {
            (None, t) => t,
            (Some(a), b) if a == b => a,
            (Some(Kind::Int | Kind::UInt), Kind::Int | Kind::UInt) => Kind::UInt,
            (Some(Kind::Int | Kind::UInt | Kind::Double), Kind::Int | Kind::UInt | Kind::Double) => Kind::Double,
            _ => Kind::Text,
        });
    }
    // Negative integers beside ones past i64::MAX fit no 64-bit integer type.
    match kind {
        Some(Kind::UInt) if negative => Kind::Double,
        k => k.unwrap_or(Kind::Text),
    }
}

/// A cell as text, the way the CSV shows it (strings bare, everything else as JSON).
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn schema(columns: &[String], kinds: &[Kind]) -> parquet::errors::Result<Type> {
    let mut fields = Vec::with_capacity(columns.len());
    for (name, kind) in columns.iter().zip(kinds) {
        let (physical, logical) = match kind {
            Kind::Bool => (Physical::BOOLEAN, None),
            Kind::Int => (Physical::INT64, None),
            Kind::UInt => (Physical::INT64, Some(LogicalType::Integer(IntType { bit_width: 64, is_signed: false }))),
            Kind::Double => (Physical::DOUBLE, None),
            Kind::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
        };
        let field =
            Type::primitive_type_builder(name, physical).with_repetition(Repetition::OPTIONAL).with_logical_type(logical).build()?;
        fields.push(Arc::new(field));
    }
    Type::group_type_builder("sweep").with_fields(fields).build()
}

/// A Parquet file written row group by row group.
pub struct Writer<W: Write + Send> {
    columns: Vec<String>,
    kinds: Vec<Kind>,
    file: SerializedFileWriter<W>,
    rows: Vec<Vec<Value>>,
}

impl<W: Write + Send> Writer<W> {
    /// Column types from `samples` (per column, the cells it can hold).
    pub fn new(out: W, columns: &[String], samples: &[Vec<Value>]) -> Result<Self, String> {
        let kinds: Vec<Kind> = (0..columns.len()).map(|k| kind_of(samples.get(k).into_iter().flatten())).collect();
        let props = WriterProperties::builder().set_created_by("nodecast".to_string()).build();
        let schema = schema(columns, &kinds).map_err(|e| format!("cannot write Parquet: {e}"))?;
        let file = SerializedFileWriter::new(out, Arc::new(schema), Arc::new(props)).map_err(|e| format!("cannot write Parquet: {e}"))?;
        Ok(Writer { columns: columns.to_vec(), kinds, file, rows: Vec::with_capacity(ROW_GROUP.min(1024)) })
    }

    pub fn push(&mut self, row: Vec<Value>) -> Result<(), String> {
        self.rows.push(row);
        if self.rows.len() >= ROW_GROUP {
            self.flush_group()?;
        }
        Ok(())
    }

    /// The last row group and the footer.
    pub fn finish(mut self) -> Result<(), String> {
        if !self.rows.is_empty() {
            self.flush_group()?;
        }
        let mut out = self.file.into_inner().map_err(|e| format!("cannot write Parquet: {e}"))?;
        out.flush().map_err(|e| e.to_string())
    }

    fn flush_group(&mut self) -> Result<(), String> {
        let rows = std::mem::take(&mut self.rows);
        self.write_group(&rows).map_err(|e| format!("cannot write Parquet: {e}"))
    }

    fn write_group(&mut self, rows: &[Vec<Value>]) -> parquet::errors::Result<()> {
        use parquet::errors::ParquetError;
        let mut group = self.file.next_row_group()?;
        let mut k = 0;
        while let Some(mut column) = group.next_column()? {
            let cells: Vec<&Value> = rows.iter().map(|r| r.get(k).unwrap_or(&Value::Null)).collect();
            // Definition level 1 = a value, 0 = null (every column is OPTIONAL at the top level).
            let levels: Vec<i16> = cells.iter().map(|c| i16::from(!c.is_null())).collect();
            let present = cells.iter().filter(|c| !c.is_null());
            // The types were fixed from every cell a column can hold: a cell outside them is a
            // bug, reported rather than written as something else.
            let name = &self.columns[k];
            let wrong = |c: &Value| ParquetError::General(format!("column {name}: {c} does not fit the column's type"));
            match self.kinds[k] {
                Kind::Bool => {
                    let values = present.map(|c| c.as_bool().ok_or_else(|| wrong(c))).collect::<Result<Vec<bool>, _>>()?;
                    column.typed::<BoolType>().write_batch(&values, Some(&levels), None)?;
                }
                Kind::Int => {
                    let values = present.map(|c| c.as_i64().ok_or_else(|| wrong(c))).collect::<Result<Vec<i64>, _>>()?;
                    column.typed::<Int64Type>().write_batch(&values, Some(&levels), None)?;
                }
                Kind::UInt => {
                    // UINT64 is stored in INT64 as the same 64 bits (Parquet's convention).
                    let values = present.map(|c| c.as_u64().map(|u| u as i64).ok_or_else(|| wrong(c))).collect::<Result<Vec<i64>, _>>()?;
                    column.typed::<Int64Type>().write_batch(&values, Some(&levels), None)?;
                }
                Kind::Double => {
                    let values = present.map(|c| c.as_f64().ok_or_else(|| wrong(c))).collect::<Result<Vec<f64>, _>>()?;
                    column.typed::<DoubleType>().write_batch(&values, Some(&levels), None)?;
                }
                Kind::Text => {
                    let values: Vec<ByteArray> = present.map(|c| ByteArray::from(text(c).into_bytes())).collect();
                    column.typed::<ByteArrayType>().write_batch(&values, Some(&levels), None)?;
                }
            }
            column.close()?;
            k += 1;
        }
        group.close()?;
        Ok(())
    }
}

/// The table (`columns` and rows) as the bytes of a Parquet file, typed from the rows themselves.
#[cfg(test)]
pub fn render(columns: &[String], rows: &[Vec<Value>]) -> Result<Vec<u8>, String> {
    let samples: Vec<Vec<Value>> =
        (0..columns.len()).map(|k| rows.iter().map(|r| r.get(k).cloned().unwrap_or(Value::Null)).collect()).collect();
    let mut out = Vec::new();
    let mut w = Writer::new(&mut out, columns, &samples)?;
    for row in rows {
        w.push(row.clone())?;
    }
    w.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn column_types_follow_the_cells() {
        let rows = [
            vec![json!(1), json!(1.5), json!("a"), json!(null), json!(true), json!(2)],
            vec![json!(2), json!(null), json!(["x"]), json!(null), json!(false), json!(2.5)],
        ];
        let kinds: Vec<Kind> = (0..6).map(|k| kind_of(rows.iter().map(|r| &r[k]))).collect();
        assert_eq!(kinds, [Kind::Int, Kind::Double, Kind::Text, Kind::Text, Kind::Bool, Kind::Double]);
    }

    #[test]
    fn same_rows_same_bytes() {
        let columns = vec!["n".to_string(), "usd".to_string()];
        let rows = vec![vec![json!(1), json!(0.25)], vec![json!(null), json!(null)]];
        let a = render(&columns, &rows).unwrap();
        assert_eq!(a, render(&columns, &rows).unwrap());
        assert_eq!(&a[..4], b"PAR1");
        assert_eq!(&a[a.len() - 4..], b"PAR1");
    }

    /// The bytes as a file to read back (the reader reads files; no extra crate for buffers).
    fn file_of(bytes: &[u8], name: &str) -> std::fs::File {
        let path = std::env::temp_dir().join(format!("nodecast-parquet-{name}-{}.parquet", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        f
    }

    #[test]
    fn seeds_past_two_to_the_53_stay_exact_integers() {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        let columns = vec!["seed".to_string(), "n".to_string()];
        let big = [(1u64 << 53) + 1, u64::MAX];
        let rows: Vec<Vec<Value>> = big.iter().map(|&s| vec![json!(s), json!(-1)]).collect();
        let bytes = render(&columns, &rows).unwrap();
        let reader = SerializedFileReader::new(file_of(&bytes, "seeds")).unwrap();
        let schema = reader.metadata().file_metadata().schema_descr_ptr();
        assert_eq!(schema.column(0).physical_type(), Physical::INT64);
        assert_eq!(schema.column(0).logical_type_ref(), Some(&LogicalType::Integer(IntType { bit_width: 64, is_signed: false })));
        assert_eq!(schema.column(1).logical_type_ref(), None);
        let mut got = Vec::new();
        let group = reader.get_row_group(0).unwrap();
        let mut col = group.get_column_reader(0).unwrap();
        if let parquet::column::reader::ColumnReader::Int64ColumnReader(ref mut r) = col {
            let mut levels = Vec::new();
            r.read_records(10, Some(&mut levels), None, &mut got).unwrap();
        } else {
            panic!("seed is not stored as INT64");
        }
        assert_eq!(got.iter().map(|&v| v as u64).collect::<Vec<_>>(), big);
    }

    #[test]
    fn many_rows_make_several_row_groups() {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        let columns = vec!["i".to_string()];
        let rows: Vec<Vec<Value>> = (0..ROW_GROUP * 2 + 1).map(|i| vec![json!(i)]).collect();
        let reader = SerializedFileReader::new(file_of(&render(&columns, &rows).unwrap(), "groups")).unwrap();
        assert_eq!(reader.metadata().num_row_groups(), 3);
        assert_eq!(reader.metadata().file_metadata().num_rows(), rows.len() as i64);
    }
}
