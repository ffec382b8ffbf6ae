For i In {0:1e12}
  x = i;
EndFor

