//! `nodecast sweep -o parquet --out FILE`: the sweep table as one Parquet file, for pandas,
//! polars, DuckDB or Spark without a CSV parse that guesses types.
//!
//! Every column is OPTIONAL (a failed combination has null metrics) and typed from its cells:
//! booleans → BOOLEAN, integers → INT64, any other number → DOUBLE, otherwise a UTF8 string
//! (lists and mappings as the same compact JSON the CSV holds). The type follows from how the
//! core builds each cell (integer counts are JSON integers, dollars and seconds JSON floats), so
//! a column keeps its type from one sweep to the next whatever its values. The file is written
//! uncompressed, in one row group (a sweep is thousands of rows, not millions), and holds no
//! timestamp: the same rows give the same bytes.

use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use serde_json::Value;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Bool,
    Int,
    Double,
    Text,
}

/// The narrowest type every non-null cell of column `k` fits; an all-null column is text.
fn kind_of(rows: &[Vec<Value>], k: usize) -> Kind {
    let mut kind: Option<Kind> = None;
    for cell in rows.iter().map(|r| r.get(k).unwrap_or(&Value::Null)) {
        let this = match cell {
            Value::Null => continue,
            Value::Bool(_) => Kind::Bool,
            Value::Number(n) if n.is_i64() => Kind::Int,
            Value::Number(_) => Kind::Double,
            _ => Kind::Text,
        };
        kind = Some(match (kind, this) {
            (None, t) => t,
            (Some(a), b) if a == b => a,
            (Some(Kind::Int | Kind::Double), Kind::Int | Kind::Double) => Kind::Double,
            _ => Kind::Text,
        });
    }
    kind.unwrap_or(Kind::Text)
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
            Kind::Double => (Physical::DOUBLE, None),
            Kind::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
        };
        let field =
            Type::primitive_type_builder(name, physical).with_repetition(Repetition::OPTIONAL).with_logical_type(logical).build()?;
        fields.push(Arc::new(field));
    }
    Type::group_type_builder("sweep").with_fields(fields).build()
}

/// The table (`columns` and the rows `nodecast::sweep` produced) as the bytes of a Parquet file.
pub fn render(columns: &[String], rows: &[Vec<Value>]) -> Result<Vec<u8>, String> {
    write(columns, rows).map_err(|e| format!("cannot write Parquet: {e}"))
}

fn write(columns: &[String], rows: &[Vec<Value>]) -> parquet::errors::Result<Vec<u8>> {
    let kinds: Vec<Kind> = (0..columns.len()).map(|k| kind_of(rows, k)).collect();
    let props = WriterProperties::builder().set_created_by("nodecast".to_string()).build();
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut out, Arc::new(schema(columns, &kinds)?), Arc::new(props))?;
    let mut group = writer.next_row_group()?;
    let mut k = 0;
    while let Some(mut column) = group.next_column()? {
        let cells: Vec<&Value> = rows.iter().map(|r| r.get(k).unwrap_or(&Value::Null)).collect();
        // Definition level 1 = a value, 0 = null (every column is OPTIONAL at the top level).
        let levels: Vec<i16> = cells.iter().map(|c| i16::from(!c.is_null())).collect();
        let present = cells.iter().filter(|c| !c.is_null());
        match kinds[k] {
            Kind::Bool => {
                let values: Vec<bool> = present.map(|c| c.as_bool().unwrap_or_default()).collect();
                column.typed::<BoolType>().write_batch(&values, Some(&levels), None)?;
            }
            Kind::Int => {
                let values: Vec<i64> = present.map(|c| c.as_i64().unwrap_or_default()).collect();
                column.typed::<Int64Type>().write_batch(&values, Some(&levels), None)?;
            }
            Kind::Double => {
                let values: Vec<f64> = present.map(|c| c.as_f64().unwrap_or_default()).collect();
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
    writer.close()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn column_types_follow_the_cells() {
        let rows = vec![
            vec![json!(1), json!(1.5), json!("a"), json!(null), json!(true), json!(2)],
            vec![json!(2), json!(null), json!(["x"]), json!(null), json!(false), json!(2.5)],
        ];
        let kinds: Vec<Kind> = (0..6).map(|k| kind_of(&rows, k)).collect();
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
}
